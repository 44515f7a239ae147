# ember_add_op_library(<target> NAMESPACE <ns> YAML <files...> SOURCES <kernel files...>)
#
# Builds a shared library of operators defined in YAML fragments (native_functions.yaml's
# format), the same way libember builds its own: the generator writes entry points
# (<ns>/generated/Functions.h, ember::<op>(...)), kernel declarations
# (<ns>/generated/NativeFunctions.h) and registrations; you write the kernels. Used by
# Ember's own tests and by out-of-tree libraries (find_package(Ember) includes this file).
function(ember_add_op_library target)
  cmake_parse_arguments(ARG "" "NAMESPACE" "YAML;SOURCES" ${ARGN})
  if(NOT ARG_NAMESPACE OR NOT ARG_YAML)
    message(FATAL_ERROR "ember_add_op_library(${target}): NAMESPACE and YAML are required")
  endif()
  if(NOT EMBER_CODEGEN_DIR)
    message(FATAL_ERROR "ember_add_op_library: EMBER_CODEGEN_DIR is not set")
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(gen_root ${CMAKE_CURRENT_BINARY_DIR}/${target}_generated)
  set(gen_out ${gen_root}/${ARG_NAMESPACE}/generated)
  set(yaml_args)
  foreach(y ${ARG_YAML})
    get_filename_component(y ${y} ABSOLUTE)
    list(APPEND yaml_args --yaml ${y})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${y})
  endforeach()
  set(gen_cmd ${Python3_EXECUTABLE} ${EMBER_CODEGEN_DIR}/gen.py ${yaml_args} --out ${gen_out}
      --namespace ${ARG_NAMESPACE} --include-prefix ${ARG_NAMESPACE}/generated --no-methods)
  execute_process(COMMAND ${gen_cmd} --list-outputs OUTPUT_VARIABLE cpps
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${err}")
  endif()
  list(TRANSFORM cpps PREPEND ${gen_out}/)
  file(GLOB codegen_py ${EMBER_CODEGEN_DIR}/*.py)
  add_custom_command(
    OUTPUT ${gen_out}/codegen.stamp
    BYPRODUCTS ${cpps} ${gen_out}/Functions.h ${gen_out}/NativeFunctions.h
    COMMAND ${gen_cmd} --stamp ${gen_out}/codegen.stamp
    DEPENDS ${ARG_YAML} ${codegen_py}
    COMMENT "Generating ${ARG_NAMESPACE} operators"
    VERBATIM)
  add_custom_target(${target}_codegen DEPENDS ${gen_out}/codegen.stamp)
  add_library(${target} SHARED ${cpps} ${ARG_SOURCES})
  add_dependencies(${target} ${target}_codegen)
  target_include_directories(${target} PUBLIC ${gen_root})
  target_link_libraries(${target} PUBLIC Ember::ember)
endfunction()
