#include "bench/child_run.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace egret {

ChildRun RunInChild(const std::function<std::string()>& work, double timeout_seconds) {
  using Clock = std::chrono::steady_clock;
  ChildRun run;
  int fds[2];
  if (pipe(fds) != 0) return run;
  const Clock::time_point t0 = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return run;
  }
  if (pid == 0) {
    close(fds[0]);
    const std::string out = work();
    size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) _exit(1);
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  std::string out;
  char buf[4096];
  for (;;) {
    int wait_ms = -1;
    if (timeout_seconds > 0) {
      const double left = timeout_seconds - elapsed();
      if (left <= 0) {
        kill(pid, SIGKILL);
        run.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(left * 1000) + 1;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;  // the time check above decides
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // the child closed the pipe: it ended
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  run.seconds = elapsed();
  run.exited_ok = !run.timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (run.exited_ok) run.output = std::move(out);
  return run;
}

}  // namespace egret
