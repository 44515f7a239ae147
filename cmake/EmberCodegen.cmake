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

# ember_add_backend(<target> YAML <kernels.yaml> SOURCES <files...> [OUTPUT_NAME <name>])
#
# Builds an out-of-tree backend (c10/backend/Backend.h) as a loadable module for
# ember.backends.load(). The kernel YAML lists the Ember operators the backend implements
# (Note [Backend YAML], codegen/gen_backend.py); the generator writes Kernels.h, the typed
# declarations of ember::<namespace>::Kernels, and register_kernels(), which the backend's
# register function calls. A kernel defined with another signature than its operator's does
# not compile; one left undefined does not link. The module is built as a backend must be:
# hidden visibility (only EMBER_BACKEND's two symbols are exported), no gnu-unique symbols
# (dlclose must unload it), the sanitizers libember was built with (EMBER_SANITIZE).
function(ember_add_backend target)
  cmake_parse_arguments(ARG "" "YAML;OUTPUT_NAME" "SOURCES" ${ARGN})
  if(NOT ARG_YAML OR NOT ARG_SOURCES)
    message(FATAL_ERROR "ember_add_backend(${target}): YAML and SOURCES are required")
  endif()
  if(NOT EMBER_CODEGEN_DIR OR NOT EMBER_NATIVE_FUNCTIONS)
    message(FATAL_ERROR "ember_add_backend: EMBER_CODEGEN_DIR and EMBER_NATIVE_FUNCTIONS are not set "
                        "(find_package(Ember) sets them)")
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  find_package(Threads REQUIRED)
  get_filename_component(yaml ${ARG_YAML} ABSOLUTE)
  set(gen_out ${CMAKE_CURRENT_BINARY_DIR}/${target}_generated)
  add_custom_command(
    OUTPUT ${gen_out}/Kernels.h ${gen_out}/RegisterKernels.cpp
    COMMAND ${Python3_EXECUTABLE} ${EMBER_CODEGEN_DIR}/gen_backend.py --native ${EMBER_NATIVE_FUNCTIONS}
            --yaml ${yaml} --out ${gen_out}
    DEPENDS ${yaml} ${EMBER_NATIVE_FUNCTIONS} ${EMBER_CODEGEN_DIR}/gen_backend.py ${EMBER_CODEGEN_DIR}/model.py
            ${EMBER_CODEGEN_DIR}/cpp.py
    COMMENT "Generating ${target}'s kernel declarations"
    VERBATIM)
  add_library(${target} MODULE ${ARG_SOURCES} ${gen_out}/RegisterKernels.cpp)
  target_include_directories(${target} PRIVATE ${gen_out})
  target_link_libraries(${target} PRIVATE Ember::ember Threads::Threads)
  set_target_properties(${target} PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF
                        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_OUTPUT_NAME)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME})
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # gnu-unique symbols would make dlclose() a no-op (examples/out_of_tree_backend/README.md).
    target_compile_options(${target} PRIVATE -fno-gnu-unique)
  endif()
  if(EMBER_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=${EMBER_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=${EMBER_SANITIZE})
  else()
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
endfunction()
