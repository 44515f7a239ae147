# ember_add_op_library(<target> NAMESPACE <ns> YAML <files...> SOURCES <kernel files...>
#                      [PYTHON])
#
# Builds a shared library of operators defined in YAML fragments (native_functions.yaml's
# format), the same way libember builds its own: the generator writes entry points
# (<ns>/generated/Functions.h, ember::<op>(...)), kernel declarations
# (<ns>/generated/NativeFunctions.h) and registrations; you write the kernels. Used by
# Ember's own tests and by out-of-tree libraries (find_package(Ember) includes this file).
# PYTHON also builds the extension module <target>_py (codegen/gen_python.py): loaded with
# ember.ops.load_library(path), it puts the library's ops into ember and onto ember.Tensor
# (needs the ember_python target, i.e. a build with EMBER_BUILD_PYTHON).
function(ember_add_op_library target)
  cmake_parse_arguments(ARG "PYTHON" "NAMESPACE" "YAML;SOURCES" ${ARGN})
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
  execute_process(COMMAND ${gen_cmd} --list-outputs OUTPUT_VARIABLE outputs
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${err}")
  endif()
  list(TRANSFORM outputs PREPEND ${gen_out}/)
  set(cpps ${outputs})
  list(FILTER cpps INCLUDE REGEX "\\.cpp$")
  file(GLOB codegen_py ${EMBER_CODEGEN_DIR}/*.py)
  add_custom_command(
    OUTPUT ${gen_out}/codegen.stamp
    BYPRODUCTS ${outputs}
    COMMAND ${gen_cmd} --stamp ${gen_out}/codegen.stamp
    DEPENDS ${ARG_YAML} ${codegen_py}
    COMMENT "Generating ${ARG_NAMESPACE} operators"
    VERBATIM)
  add_custom_target(${target}_codegen DEPENDS ${gen_out}/codegen.stamp)
  add_library(${target} SHARED ${cpps} ${ARG_SOURCES})
  add_dependencies(${target} ${target}_codegen)
  target_include_directories(${target} PUBLIC ${gen_root})
  target_link_libraries(${target} PUBLIC Ember::ember)

  if(ARG_PYTHON)
    if(NOT TARGET ember_python)
      message(FATAL_ERROR "ember_add_op_library(${target} PYTHON): needs EMBER_BUILD_PYTHON=ON")
    endif()
    find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
    set(py_out ${gen_root}/python)
    set(py_cmd ${Python3_EXECUTABLE} ${EMBER_CODEGEN_DIR}/gen_python.py ${yaml_args} --out ${py_out}
        --include-prefix ${ARG_NAMESPACE}/generated --entry ${target}_bindings --module ${target}_py)
    add_custom_command(
      OUTPUT ${py_out}/python.stamp
      BYPRODUCTS ${py_out}/python_bindings.cpp ${py_out}/python_bindings_0.cpp
      COMMAND ${py_cmd} --stamp ${py_out}/python.stamp
      DEPENDS ${ARG_YAML} ${codegen_py}
      COMMENT "Generating ${ARG_NAMESPACE} Python bindings"
      VERBATIM)
    add_custom_target(${target}_py_codegen DEPENDS ${py_out}/python.stamp)
    Python3_add_library(${target}_py MODULE WITH_SOABI ${py_out}/python_bindings.cpp
                        ${py_out}/python_bindings_0.cpp)
    add_dependencies(${target}_py ${target}_py_codegen ${target}_codegen)
    # The extension names no symbol of the library (ops are found by name): keep it linked.
    target_link_options(${target}_py PRIVATE "LINKER:--no-as-needed")
    target_link_libraries(${target}_py PRIVATE ${target} ember_python)
    target_compile_options(${target}_py PRIVATE -Wno-missing-field-initializers)
    set_target_properties(${target}_py PROPERTIES CXX_VISIBILITY_PRESET hidden)
  endif()
endfunction()
