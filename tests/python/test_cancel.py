"""Ctrl-C interrupts a long optimization cleanly: KeyboardInterrupt, soon,
and egret works normally afterwards."""

import os
import signal
import threading
import time
import unittest

import egret

import support


class CtrlC(unittest.TestCase):
    def test_sigint_interrupts_optimize(self):
        graph = support.adder_chain()
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                # Would run for 60 s (its e-graph grows without end).
                egret.optimize(graph, verify=False, time_limit=60, iter_limit=0, node_limit=0,
                               memory_limit=0, constant_folding=False)
        finally:
            timer.cancel()
        self.assertLess(time.monotonic() - start, 10)
        r = egret.optimize(support.GPT2, dims=support.GPT2_DIMS)
        self.assertEqual(r.verify.status, "ok")

    def test_an_exception_in_a_function_stops_a_long_run(self):
        fns = egret.Functions()
        calls = [0]

        def constraint(x, args):
            calls[0] += 1
            raise RuntimeError("stop here")

        fns.add_constraint("allow", constraint)
        rules = egret.load_rules([support.DOUBLE_RELU_RULES, support.IMPLEMENTATIONS], functions=fns)
        with self.assertRaisesRegex(RuntimeError, "stop here"):
            egret.optimize(support.double_relu_graph(), rules=rules, verify=False)
        self.assertEqual(calls[0], 1)


if __name__ == "__main__":
    unittest.main()
