#line 100 "other.rules"
__LINE__ __FILE__ __COUNTER__
#pragma once
#warning careful
#error stop
#include <missing.h>
#if __has_include("x.h") || __has_builtin(y)
#endif
#
# 7 "marker.cc"
