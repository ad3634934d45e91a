# Configures the lit suite: tools come from the LLVM installation we built
# against, so tests always run the plugin under the matching clang and opt.
set(AD_LLVM_BIN "${LLVM_TOOLS_BINARY_DIR}")
find_program(AD_LIT NAMES lit lit.py
  PATHS "${LLVM_TOOLS_BINARY_DIR}/../build/utils/lit"
        "/usr/lib/llvm-${LLVM_VERSION_MAJOR}/build/utils/lit"
  NO_DEFAULT_PATH)
if(NOT AD_LIT)
  find_program(AD_LIT NAMES lit)
endif()
if(NOT AD_LIT)
  message(WARNING "lit not found: install llvm-${LLVM_VERSION_MAJOR}-tools")
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)
