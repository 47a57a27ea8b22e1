from_c
#include "d.h"
