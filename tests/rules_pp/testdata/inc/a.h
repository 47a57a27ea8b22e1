#pragma once
// a.h: found beside the including file
local_a
#include "sub/c.h"
#define A A_VALUE
