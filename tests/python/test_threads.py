"""egret runs from several Python threads at once (the GIL is released while
it works), each with its own results and its own Python functions."""

import threading
import time
import unittest

import egret

import support


class Threads(unittest.TestCase):
    def test_two_threads_optimize_at_once(self):
        alone = egret.optimize(support.GPT2, dims=support.GPT2_DIMS)
        results, errors = [None, None], []

        def work(k):
            try:
                results[k] = egret.optimize(support.GPT2, dims=support.GPT2_DIMS)
            except BaseException as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for r in results:
            self.assertEqual((r.input_cost, r.output_cost), (alone.input_cost, alone.output_cost))
            self.assertEqual(r.ops, alone.ops)
            self.assertEqual(r.model.SerializeToString(), alone.model.SerializeToString())

    def test_python_functions_in_two_threads(self):
        calls = {True: 0, False: 0}
        lock = threading.Lock()
        results = {}

        def work(allow):
            fns = egret.Functions()

            def constraint(x, args):
                with lock:
                    calls[allow] += 1
                return allow

            fns.add_constraint("allow", constraint)
            rules = egret.load_rules([support.DOUBLE_RELU_RULES, support.IMPLEMENTATIONS], functions=fns)
            results[allow] = egret.optimize(support.double_relu_graph(), rules=rules)

        threads = [threading.Thread(target=work, args=(a,)) for a in (True, False)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertGreater(calls[True], 0)
        self.assertGreater(calls[False], 0)
        self.assertEqual(results[True].ops["Relu"], egret.OpCount(2, 1))
        self.assertEqual(results[False].ops["Relu"], egret.OpCount(2, 2))

    def test_the_gil_is_released_while_egret_works(self):
        # A Python thread keeps counting while the main thread optimizes a
        # graph that takes the whole time limit.
        ticks, stop = [0], threading.Event()

        def count():
            while not stop.is_set():
                ticks[0] += 1
                time.sleep(0.001)

        t = threading.Thread(target=count)
        t.start()
        try:
            r = egret.optimize(support.adder_chain(), verify=False, time_limit=1.0, iter_limit=0,
                               node_limit=0, memory_limit=0, constant_folding=False)
        finally:
            stop.set()
            t.join()
        self.assertEqual(r.stop_reason, "TimeLimit")
        self.assertGreater(ticks[0], 100)


if __name__ == "__main__":
    unittest.main()
