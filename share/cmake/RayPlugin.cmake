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
