#include "recursive_twice.h"
#include "recursive_twice.h"
