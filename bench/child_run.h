// Runs one measurement in a forked child process, so that the child's peak
// RSS (PeakRssBytes, pipeline/optimize.h) is that run's alone and a run that
// crashes or overruns its time cannot take the benchmark down with it.
#ifndef EGRET_BENCH_CHILD_RUN_H_
#define EGRET_BENCH_CHILD_RUN_H_

#include <functional>
#include <string>

namespace egret {

struct ChildRun {
  // The text `work` returned; empty unless exited_ok.
  std::string output;
  // `work` returned and its whole output reached the parent.
  bool exited_ok = false;
  // The child was killed (SIGKILL) after timeout_seconds.
  bool timed_out = false;
  // Wall-clock time from fork to the child's end, in seconds.
  double seconds = 0;
};

// Forks, runs `work` in the child and passes its result back through a pipe.
// With timeout_seconds > 0 the child is killed when it runs longer; 0 waits
// for it however long it takes. Fork or pipe failure: exited_ok false.
ChildRun RunInChild(const std::function<std::string()>& work, double timeout_seconds = 0);

}  // namespace egret

#endif  // EGRET_BENCH_CHILD_RUN_H_
