# egret_header_closure(<out-var> <root> <header>...)
#   The headers given (paths under <root>, e.g. egret/api/egret.h) plus every
#   egret header they include (#include "egret/..."), transitively, sorted.
#   An include of a header missing under <root> is an error naming both.
# Used at configure time (what to install) and by the install test (over the
# installed tree), so it runs in script mode too.
function(egret_header_closure out root)
  set(result "")
  set(todo ${ARGN})
  while(todo)
    list(POP_FRONT todo h)
    if(h IN_LIST result)
      continue()
    endif()
    list(APPEND result ${h})
    file(STRINGS ${root}/${h} lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"egret/")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" inc "${line}")
      if(NOT EXISTS ${root}/${inc})
        message(FATAL_ERROR "egret_header_closure: ${h} includes ${inc}, which is not in ${root}")
      endif()
      list(APPEND todo ${inc})
    endforeach()
  endwhile()
  list(SORT result)
  set(${out} ${result} PARENT_SCOPE)
endfunction()
