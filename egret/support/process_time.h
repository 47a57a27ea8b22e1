// This process's CPU time (all its threads), the clock stage timings and
// benchmark figures are measured in: under load, wall time counts other
// processes' work, CPU time does not.
#ifndef EGRET_SUPPORT_PROCESS_TIME_H_
#define EGRET_SUPPORT_PROCESS_TIME_H_

namespace egret {

// CPU time this process has used so far (CLOCK_PROCESS_CPUTIME_ID), in
// milliseconds.
double ProcessCpuMs();

}  // namespace egret

#endif  // EGRET_SUPPORT_PROCESS_TIME_H_
