"""egret's errors are Python exceptions of egret.Error's classes, carrying
egret's own "file:line:col: error: ..." message."""

import os
import tempfile
import unittest

import egret
import numpy as np

import support

BAD_RULE = """\
DEF_PACKAGE_OPTIMIZATION(GRAPH_CLEANUP,
  Op("Relu", "x"), NO_SUCH_PRED("x"), "x")
"""


class Errors(unittest.TestCase):
    def test_a_missing_model_file(self):
        with self.assertRaises(egret.NotFoundError) as e:
            egret.optimize("/nonexistent/model.onnx")
        self.assertIsInstance(e.exception, egret.Error)
        self.assertIsInstance(e.exception, FileNotFoundError)
        self.assertEqual(e.exception.status, "NOT_FOUND")
        self.assertTrue(str(e.exception).startswith("/nonexistent/model.onnx: error:"), str(e.exception))

    def test_malformed_model_bytes(self):
        with self.assertRaises(egret.InvalidArgumentError) as e:
            egret.optimize(b"not a model")
        self.assertIn("<model>: error:", str(e.exception))
        self.assertIsInstance(e.exception, ValueError)

    def test_symbolic_dims_name_the_keyword_arguments(self):
        with self.assertRaises(egret.Error) as e:
            egret.optimize(support.GPT2)
        self.assertIn("'batch_size'", str(e.exception))
        self.assertIn("dims={'NAME': N}", str(e.exception))

    def test_a_bad_rule_text_with_its_location(self):
        with self.assertRaises(egret.RulesError) as e:
            egret.load_rules(BAD_RULE)
        self.assertTrue(str(e.exception).startswith("<rules>:2:"), str(e.exception))
        self.assertIn(": error: ", str(e.exception))
        errors = [d for d in e.exception.diagnostics if d.severity == "error"]
        self.assertTrue(errors)
        self.assertEqual((errors[0].file, errors[0].line), ("<rules>", 2))
        self.assertGreater(errors[0].column, 0)
        self.assertTrue(str(errors[0]).startswith(f"<rules>:2:{errors[0].column}: error: "))
        # A one-line text is a text too, not a file name.
        one_line = egret.check_rules(BAD_RULE.replace("\n", " "))
        self.assertEqual([(d.file, d.line) for d in one_line if d.severity == "error"],
                         [("<rules>", 1)])

    def test_a_bad_rule_file_checked(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.rules")
            with open(path, "w") as f:
                f.write(BAD_RULE)
            diags = egret.check_rules(path)
            self.assertEqual([(d.file, d.line, d.severity) for d in diags if d.severity == "error"],
                             [(path, 2, "error")])
            with self.assertRaises(egret.RulesError):
                egret.optimize(support.GPT2, dims=support.GPT2_DIMS, rules=path)
        self.assertEqual(egret.check_rules(support.IMPLEMENTATIONS), [])
        with self.assertRaises(egret.NotFoundError):
            egret.check_rules("/nonexistent/x.rules")

    def test_bad_options(self):
        with self.assertRaises(egret.InvalidArgumentError) as e:
            egret.optimize(support.GPT2, dims=support.GPT2_DIMS, extractor="nope")
        self.assertIn("dag", str(e.exception))  # lists the known extractors
        with self.assertRaises(egret.InvalidArgumentError):
            egret.optimize(support.GPT2, dims=support.GPT2_DIMS, flags=["no_such_flag"])
        with self.assertRaises(egret.NotFoundError):
            egret.optimize(support.GPT2, dims=support.GPT2_DIMS, device="/nonexistent/device.json")
        with self.assertRaises(TypeError):
            egret.optimize(42)

    def test_run_checks_its_inputs(self):
        model, _ = support.mlp_model()
        with self.assertRaises(egret.InvalidArgumentError) as e:
            egret.run(model, {"x": np.zeros((4, 15), np.float32)})
        self.assertIn("input 'x': error: shape (4,15) does not match", str(e.exception))
        with self.assertRaises(egret.InvalidArgumentError) as e:
            egret.run(model, {"x": np.zeros((4, 16), np.float64)})
        self.assertIn("element type must be '<f4'", str(e.exception))
        with self.assertRaises(egret.InvalidArgumentError) as e:
            egret.run(model, {"z": np.zeros((4, 16), np.float32)})
        self.assertIn("missing: x", str(e.exception))

    def test_the_builder_names_the_node(self):
        b = egret.GraphBuilder()
        x = b.input("x", "Float32", (1, 4, 4, 8))
        y = b.input("y", "Float32", (1, 4, 4, 6))
        b.output(b.op("ElementWiseAdd", [x, y], name="add"))
        with self.assertRaises(egret.InvalidArgumentError) as e:
            b.build()
        self.assertIn("node 'add' (ElementWiseAdd)", str(e.exception))


if __name__ == "__main__":
    unittest.main()
