# Install rules for the package that users find with find_package(ADPass):
# the plugin, the runtime, the headers, and ADPassConfig.cmake, which defines
# ADPass::ADPass. The config file finds everything relative to its own
# location, so an installed prefix can be moved or packaged as a whole.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(AD_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/ADPass")

install(FILES
  "${PROJECT_SOURCE_DIR}/include/ad.h"
  "${PROJECT_SOURCE_DIR}/include/ad.hpp"
  "${PROJECT_SOURCE_DIR}/include/ad_runtime.h"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

# The config file refuses compilers that cannot load the plugin: a pass
# plugin only loads into clang of the LLVM it was built against.
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/ADPassConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/ADPassConfig.cmake"
  INSTALL_DESTINATION "${AD_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
# Before 1.0 a minor version may change the contract, hence SameMinorVersion.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/ADPassConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/ADPassConfig.cmake"
  "${PROJECT_BINARY_DIR}/ADPassConfigVersion.cmake"
  DESTINATION "${AD_INSTALL_CMAKEDIR}")
