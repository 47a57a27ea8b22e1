"""egret.run computes what numpy computes, for a model and its optimization."""

import unittest

import egret
import numpy as np

import support


class Run(unittest.TestCase):
    def test_matches_numpy_before_and_after_optimizing(self):
        model, (w, b, w2) = support.mlp_model()
        x = np.random.default_rng(1).standard_normal((4, 16)).astype(np.float32)
        expected = np.maximum(x @ w + b, 0) @ w2
        before = egret.run(model, {"x": x})
        self.assertEqual(list(before), ["y"])
        self.assertEqual(before["y"].dtype, np.float32)
        self.assertEqual(before["y"].shape, (4, 8))
        np.testing.assert_allclose(before["y"], expected, rtol=1e-5, atol=1e-5)

        r = egret.optimize(model)
        self.assertEqual(r.verify.status, "ok")
        for after in (egret.run(r.model, {"x": x}), egret.run(r.graph, {"x": x})):
            np.testing.assert_allclose(after["y"], expected, rtol=1e-5, atol=1e-5)

    def test_a_wrong_result_is_noticed(self):
        model, (w, b, w2) = support.mlp_model()
        x = np.ones((4, 16), np.float32)
        y = egret.run(model, {"x": x})["y"]
        self.assertFalse(np.allclose(y, np.maximum(x @ w, 0) @ w2))  # without the bias

    def test_integer_inputs(self):
        g = egret.load(support.GPT2, dims=support.GPT2_DIMS)
        self.assertEqual(g.inputs, [("input_ids", "Int64", (1, 8))])
        out = egret.run(g, {"input_ids": np.arange(8, dtype=np.int64).reshape(1, 8)})
        self.assertEqual([(k, v.shape) for k, v in out.items()], [("471", (1, 8, 4))])
        self.assertTrue(np.all(np.isfinite(out["471"])))


if __name__ == "__main__":
    unittest.main()
