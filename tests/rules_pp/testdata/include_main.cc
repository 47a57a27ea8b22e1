#include "inc/a.h"
#include <b.h>
#include "inc/a.h"
#include <b.h>
// a.h has #pragma once, b.h an include guard
#include "not_there.h"
// every header is read once
start A B end
