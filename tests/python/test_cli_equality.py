"""egret.optimize gives what `egret optimize MODEL -o OUT.onnx --report R
--verify` gives: the same costs, op counts, changes and the same ONNX model."""

import json
import os
import tempfile
import unittest

import egret
import onnx

import support


def run_cli(model, *flags):
    with tempfile.TemporaryDirectory() as tmp:
        out, report = os.path.join(tmp, "out.onnx"), os.path.join(tmp, "r.json")
        support.run_cli("optimize", model, "-o", out, "--report", report, "--verify", *flags)
        with open(report) as f, open(out, "rb") as g:
            return json.load(f), g.read()


class CliEquality(unittest.TestCase):
    def check(self, model, dims, cli_flags=(), **kwargs):
        cli, cli_onnx = run_cli(model, *[f"--dim={k}={v}" for k, v in dims.items()], *cli_flags)
        r = egret.optimize(onnx.load(model), dims=dims, **kwargs)
        self.assertEqual(r.input_cost, cli["input_cost"])
        self.assertEqual(r.output_cost, cli["output_cost"])
        self.assertLess(r.output_cost, r.input_cost)
        self.assertEqual({op: (c.before, c.after) for op, c in r.ops.items()},
                         {op: (c["before"], c["after"]) for op, c in cli["ops"].items()})
        self.assertEqual(r.report["changes"], cli["changes"])
        self.assertEqual(r.report["off_htp"], cli["off_htp"])
        self.assertEqual(r.report["provenance"]["by_rule"], cli["provenance"]["by_rule"])
        self.assertEqual(r.stop_reason, cli["stop_reason"])
        self.assertEqual(r.verify.status, "ok")
        self.assertEqual(r.verify.status, cli["verify"]["status"])
        self.assertIsInstance(r.model, onnx.ModelProto)
        self.assertEqual(r.model.SerializeToString(), cli_onnx)
        return r

    def test_gpt2_layer_in_the_tree(self):
        r = self.check(support.GPT2, support.GPT2_DIMS)
        # What the rules did to this layer (docs/python.md shows the like).
        self.assertEqual(r.ops["Gelu"], egret.OpCount(0, 1))
        self.assertIn("recognized Gelu x1", r.changes_text)
        self.assertEqual(r.input_cost, 7662)

    def test_with_a_device_and_a_rule_flag(self):
        r = self.check(support.GPT2, support.GPT2_DIMS,
                       ["--device", "snapdragon-8-gen-3", "--flag", "relaxed_precision"],
                       device="snapdragon-8-gen-3", flags=["relaxed_precision"])
        self.assertNotEqual(r.output_cost, 7473)  # predicted ns, not HVX cycles

    def test_blazeface_from_the_model_cache(self):
        model = os.path.join(support.MODEL_CACHE, "blazeface", "face_detection_front_128x128_barracuda.onnx")
        if not os.path.exists(model):
            self.skipTest(f"{model} not in the model cache (scripts/fetch-models)")
        r = self.check(model, {})
        self.assertEqual(r.ops["Relu"], egret.OpCount(17, 16))

    def test_path_bytes_and_modelproto_agree(self):
        a = egret.optimize(support.GPT2, dims=support.GPT2_DIMS, verify=False)
        with open(support.GPT2, "rb") as f:
            b = egret.optimize(f.read(), dims=support.GPT2_DIMS, verify=False)
        self.assertEqual((a.input_cost, a.output_cost), (b.input_cost, b.output_cost))
        self.assertIsNone(a.verify)


if __name__ == "__main__":
    unittest.main()
