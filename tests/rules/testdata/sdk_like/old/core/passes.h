// egret test data: an SDK-like header with the deprecated pass numbering.
#pragma once
#include <map>
#define BEGIN 0
#define GRAPH_CLEANUP 100
#define PRE_QNN 500
#define QNN 1000
#define EARLY 2000
#define MIDDLE 3000
#define LATE 4000
#define FROM_DEFAULT_PACKAGE(OP) make_default_name(OP).c_str()
template <class K, class V> using Table = std::map<K, V>;
#include "../../current/core/helpers.h"
