# ray_add_plugin(<name> <source>...): builds a ray plugin, a shared library that
# `ray run` / `ray submit` and workers load. Only the plugin entry points are exported.
function(ray_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden
                                           VISIBILITY_INLINES_HIDDEN ON)
  target_compile_features(${name} PRIVATE cxx_std_20)
  if(TARGET ray_sdk)
    target_link_libraries(${name} PRIVATE ray_sdk)
  else()
    target_link_libraries(${name} PRIVATE Ray::sdk)
  endif()
endfunction()

# ray_add_program(<name> <source>...): a program of the user's own that drives jobs
# with ray::Init (ray/init.h): the executable <name>, linked to the client library,
# and the plugin <name>.so beside it, built from the same sources, which workers load
# (ray::Init's default code_search_path).
function(ray_add_program name)
  ray_add_plugin(${name}_plugin ${ARGN})
  set_target_properties(${name}_plugin PROPERTIES OUTPUT_NAME ${name})
  add_executable(${name} ${ARGN})
  target_compile_features(${name} PRIVATE cxx_std_20)
  if(TARGET ray_client)
    target_link_libraries(${name} PRIVATE ray_sdk ray_client)
  else()
    target_link_libraries(${name} PRIVATE Ray::sdk Ray::client)
  endif()
  add_dependencies(${name} ${name}_plugin)
endfunction()
