# Overlay port: builds the docshard checkout this port lives in (use it with
# `vcpkg install docshard --overlay-ports=<checkout>/ports`). A registry port
# would fetch a release archive with vcpkg_from_github instead; everything
# after that is the same.
get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

vcpkg_cmake_configure(
  SOURCE_PATH "${SOURCE_PATH}"
  OPTIONS
    -DDOCSHARD_BUILD_TESTS=OFF
    -DDOCSHARD_BUILD_TOOLS=OFF
    -DDOCSHARD_BUILD_SAMPLES=OFF
    -DDOCSHARD_BUILD_BENCH=OFF)
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(CONFIG_PATH lib/cmake/docshard)
vcpkg_fixup_pkgconfig()

file(REMOVE_RECURSE "${CURRENT_PACKAGES_DIR}/debug/include")
file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
