"""egret.extract on egraph-serialize e-graphs (as `egret extract --json`), and
graphs built in code with egret.GraphBuilder."""

import json
import os
import tempfile
import unittest

import egret
import numpy as np

import support

# Class top is f(x, x) (cost 2 + x twice) or g (cost 10); x costs 3 or 1.
EGRAPH = """{
  "nodes": {
    "f1": {"op": "f", "children": ["x1", "x1"], "eclass": "top", "cost": 2},
    "g1": {"op": "g", "children": [], "eclass": "top", "cost": 10},
    "x1": {"op": "x", "children": [], "eclass": "cx", "cost": 3},
    "x2": {"op": "y", "children": [], "eclass": "cx", "cost": 1}
  },
  "root_eclasses": ["top"]
}"""


class Extract(unittest.TestCase):
    def test_text_and_file_as_the_cli(self):
        r = egret.extract(EGRAPH)
        self.assertEqual(r.choices, {"top": "f1", "cx": "x2"})
        self.assertEqual((r.dag_cost, r.tree_cost), (3, 4))
        # The critical-path bound, as the CLI prints it: top costs at least
        # min(2 + 1, 10) = 3, so the DAG choice is optimal.
        self.assertIsNone(r.bound)
        self.assertEqual(r.lower_bound, 3)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "g.json")
            with open(path, "w") as f:
                f.write(EGRAPH)
            from_file = egret.extract(path, extractor="tree")
            cli = json.loads(support.run_cli("extract", path, "--extractor", "tree", "--json"))
        self.assertEqual(from_file.choices, cli["choices"])
        self.assertEqual((from_file.tree_cost, from_file.dag_cost), (cli["tree_cost"], cli["dag_cost"]))
        self.assertEqual(from_file.lower_bound, cli["lower_bound"])

    def test_malformed_json_has_its_location(self):
        with self.assertRaises(egret.InvalidArgumentError) as e:
            egret.extract('{"nodes": {"a": {"op": 3}}}')
        self.assertRegex(str(e.exception), r"^<egraph>:1:\d+: error: ")
        with self.assertRaises(egret.NotFoundError):
            egret.extract("/nonexistent/egraph.json")
        with self.assertRaises(egret.InvalidArgumentError):
            egret.extract(EGRAPH, extractor="nope")


class Builder(unittest.TestCase):
    def test_build_optimize_and_run(self):
        # Relu(Conv2d(x, w) + bias), 1x1 convolution; the rules fuse the Relu.
        w = np.linspace(-1, 1, 64, dtype=np.float32).reshape(1, 1, 8, 8)
        bias = np.linspace(-0.5, 0.5, 8, dtype=np.float32)
        b = egret.GraphBuilder("block")
        x = b.input("x", "Float32", (1, 4, 4, 8))
        conv = b.op("Conv2d", [x, b.constant("w", w), b.constant("bias", bias),
                               b.shape([1, 1, 1, 1]), b.shape([0, 0, 0, 0])], name="conv")
        b.output(b.op("Relu", [conv]), "y")
        g = b.build()
        self.assertEqual(g.inputs, [("x", "Float32", (1, 4, 4, 8))])
        self.assertEqual(g.outputs, [("y", "Float32", (1, 4, 4, 8))])

        xv = np.linspace(-2, 2, 128, dtype=np.float32).reshape(1, 4, 4, 8)
        expected = np.maximum(xv @ w[0, 0] + bias, 0)  # NHWC: a 1x1 conv is a matmul
        np.testing.assert_allclose(egret.run(g, {"x": xv})["y"], expected, rtol=1e-5, atol=1e-6)
        r = egret.optimize(g)
        self.assertEqual(r.changes_text, "fused Relu into Conv2d x1")
        self.assertEqual(r.ops, {"Conv2d": egret.OpCount(1, 1), "Relu": egret.OpCount(1, 0)})
        self.assertLess(r.output_cost, r.input_cost)
        np.testing.assert_allclose(egret.run(r.graph, {"x": xv})["y"], expected, rtol=1e-5, atol=1e-6)


if __name__ == "__main__":
    unittest.main()
