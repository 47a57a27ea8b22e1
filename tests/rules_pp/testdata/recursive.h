// includes itself without a guard
#include "recursive.h"
