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
# Some LLVM packages ship no lit (llvm-22-tools on Debian, for one). lit is
# plain Python and runs tests for any LLVM version, since the tools come from
# AD_LLVM_BIN, so borrow another installed LLVM's, the newest first.
if(NOT AD_LIT)
  file(GLOB ad_other_lits "/usr/lib/llvm-*/build/utils/lit/lit.py")
  if(ad_other_lits)
    list(SORT ad_other_lits COMPARE NATURAL ORDER DESCENDING)
    list(GET ad_other_lits 0 ad_other_lit)
    set(AD_LIT "${ad_other_lit}" CACHE FILEPATH "lit, which runs the test suite" FORCE)
    message(STATUS "ADPass: no lit for LLVM ${LLVM_VERSION_MAJOR}; using ${AD_LIT}")
  endif()
endif()
if(NOT AD_LIT)
  message(WARNING "lit not found: install llvm-${LLVM_VERSION_MAJOR}-tools, "
    "or lit from PyPI, or set AD_LIT to a lit.py")
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)
