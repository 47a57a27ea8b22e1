"""External functions written in Python change what the optimizer does."""

import unittest

import egret
import numpy as np

import support


def load(fns):
    return egret.load_rules(
        [("<test>", support.DOUBLE_RELU_RULES), ("<impls>", support.IMPLEMENTATIONS)], functions=fns
    )


class Constraint(unittest.TestCase):
    def test_the_constraint_decides(self):
        for allow in (True, False):
            with self.subTest(allow=allow):
                seen = []
                fns = egret.Functions()

                @fns.constraint("allow")
                def _(x, args):
                    seen.append((x, args))
                    return allow

                r = egret.optimize(support.double_relu_graph(), rules=load(fns), verify=True)
                self.assertTrue(seen)
                x, args = seen[0]
                self.assertEqual(args, [3.0, 1.5])
                self.assertEqual(x, egret.Operand("Float32", (1, 4, 4, 32), None))
                self.assertEqual(r.ops["Relu"], egret.OpCount(2, 1 if allow else 2))
                # 512 floats = 16 vectors at 2 cycles per Relu.
                self.assertEqual(r.input_cost, 64)
                self.assertEqual(r.output_cost, 32 if allow else 64)
                self.assertEqual(r.verify.status, "ok")

    def test_an_exception_in_a_constraint_is_raised_by_optimize(self):
        fns = egret.Functions()
        fns.add_constraint("allow", lambda x, args: 1 / 0)
        with self.assertRaises(ZeroDivisionError):
            egret.optimize(support.double_relu_graph(), rules=load(fns), verify=False)

    def test_an_unregistered_function_leaves_its_rule_out(self):
        rules = egret.load_rules(
            [("<test>", support.DOUBLE_RELU_RULES), ("<impls>", support.IMPLEMENTATIONS)]
        )
        self.assertTrue(any("allow" in d.message and d.severity == "warning" for d in rules.diagnostics))
        r = egret.optimize(support.double_relu_graph(), rules=rules, verify=False)
        self.assertEqual(r.ops["Relu"], egret.OpCount(2, 2))
        self.assertEqual(len(r.report["rules_skipped"]), 1)


class Replace(unittest.TestCase):
    # x + x becomes whatever constant the Python function returns.
    RULES = """\
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("ElementWiseAdd", "x", "x"),
  OK,
  EXTERNAL_REPLACE(twos))
"""

    def optimize(self, fns):
        """y = x + x, optimized with RULES and ``fns``."""
        rules = egret.load_rules([("<test>", self.RULES), ("<impls>", support.IMPLEMENTATIONS)],
                                 functions=fns)
        b = egret.GraphBuilder("g")
        x = b.input("x", "Float32", (1, 1, 1, 32))
        b.output(b.op("ElementWiseAdd", [x, x]), "y")
        return egret.optimize(b.build(), rules=rules, verify=False)

    def test_a_replacement_becomes_the_result(self):
        calls = []
        fns = egret.Functions()

        @fns.replace("twos")
        def _(root):
            calls.append(root)
            return np.full(root.dims, 2.0, np.float32)

        r = self.optimize(fns)
        self.assertTrue(calls)
        self.assertEqual(calls[0], egret.Operand("Float32", (1, 1, 1, 32), None))
        self.assertEqual(r.ops["ElementWiseAdd"], egret.OpCount(1, 0))
        y = egret.run(r.graph, {"x": np.zeros((1, 1, 1, 32), np.float32)})["y"]
        np.testing.assert_array_equal(y, np.full((1, 1, 1, 32), 2.0, np.float32))

    def test_a_replacement_of_the_wrong_shape_is_a_rule_issue(self):
        fns = egret.Functions()
        fns.add_replace("twos", lambda root: np.zeros((3,), np.float32))
        r = self.optimize(fns)
        self.assertEqual(r.ops["ElementWiseAdd"], egret.OpCount(1, 1))
        self.assertTrue(any("does not match Float32[1,1,1,32]" in w for w in r.warnings), r.warnings)


class ShapeFunction(unittest.TestCase):
    # x + x becomes x * two(2): a constant the Python shape function builds
    # from the rule's scalar.
    RULES = """\
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("ElementWiseAdd", "x", "x"),
  OK,
  Op("ElementWiseMultiply", "x", SHAPEFN_APPLY(two, 2)))
DEF_PACKAGE_OP_AND_COST_AND_FLAGS((mulImpl<Tensor>), "ElementWiseMultiply", 2, RESOURCE_HVX)
"""

    def test_a_shape_function_builds_a_constant(self):
        seen = []
        fns = egret.Functions()

        @fns.shape_fn("two", 1)
        def _(args):
            seen.append(args)
            return np.array([args[0]], np.float32)

        rules = egret.load_rules([("<test>", self.RULES), ("<impls>", support.IMPLEMENTATIONS)],
                                 functions=fns)
        b = egret.GraphBuilder("g")
        x = b.input("x", "Float32", (1, 4, 4, 32))
        b.output(b.op("ElementWiseAdd", [x, x]), "y")
        r = egret.optimize(b.build(), rules=rules)
        self.assertEqual(seen[0], [2.0])
        self.assertEqual(r.ops, {"ElementWiseAdd": egret.OpCount(1, 0),
                                 "ElementWiseMultiply": egret.OpCount(0, 1)})
        self.assertEqual(r.verify.status, "ok")  # 2 * x is x + x
        xv = np.linspace(-1, 1, 512, dtype=np.float32).reshape(1, 4, 4, 32)
        np.testing.assert_allclose(egret.run(r.graph, {"x": xv})["y"], 2 * xv)


if __name__ == "__main__":
    unittest.main()
