# `cmake --install` (issue 39): the CLI, one shared library with every module, the public headers,
# the built-in configs, a CMake package (find_package(lidartwin CONFIG)) and a pkg-config file.
#
# Why one shared library and not the module archives (docs/adr/0025-python-module-and-install.md):
# the archives link Open3D, Ceres, HDF5, CUDA and ten smaller libraries privately, and an exported
# archive drags every one of them into each consumer's link and find_package. liblidartwin.so
# resolves them once; a consumer needs only what the public headers include (nlohmann_json, Embree
# headers, threads). The CLI keeps linking the archives.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LT_INSTALLED_MODULES lidartwin_base lidartwin_sim_core lidartwin_sim lidartwin_datasets
    lidartwin_reconstruct lidartwin_compare lidartwin_compare_io lidartwin_reports
    lidartwin_viewer lidartwin_bench lidartwin_jobs)
foreach(optional lidartwin_sim_cuda lidartwin_mesh_open3d lidartwin_reconstruction
        lidartwin_calib lidartwin_calib_real lidartwin_viewer_page)
  if(TARGET ${optional})
    list(APPEND LT_INSTALLED_MODULES ${optional})
  endif()
endforeach()

add_library(lidartwin_shared SHARED ${CMAKE_SOURCE_DIR}/cmake/empty.cpp)
set_target_properties(lidartwin_shared PROPERTIES OUTPUT_NAME lidartwin EXPORT_NAME lidartwin
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
# Each archive whole (every object, used here or not: a consumer may call any of them), then the
# targets again for their own dependencies. CMake's WHOLE_ARCHIVE link feature refuses an
# archive that also comes in through another's dependencies, as every one of ours does.
set(LT_INSTALLED_ARCHIVES)
foreach(module ${LT_INSTALLED_MODULES})
  list(APPEND LT_INSTALLED_ARCHIVES $<TARGET_FILE:${module}>)
endforeach()
target_link_libraries(lidartwin_shared
  PRIVATE -Wl,--whole-archive ${LT_INSTALLED_ARCHIVES} -Wl,--no-whole-archive
          ${LT_INSTALLED_MODULES}
  INTERFACE nlohmann_json::nlohmann_json Threads::Threads)
# What the public headers include: ours, and Embree's (sim/embree_packet.h) from /usr/include.
set(LT_PUBLIC_INCLUDE_DIRS base/include sim/physics/include sim/include datasets/include
    reconstruct/include compare/include reports/include calib/include viewer/include
    bench/include jobs/include)
foreach(dir ${LT_PUBLIC_INCLUDE_DIRS})
  target_include_directories(lidartwin_shared INTERFACE
    $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/${dir}>)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
endforeach()
target_include_directories(lidartwin_shared INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(lidartwin_shared INTERFACE cxx_std_20)

install(TARGETS lidartwin_shared EXPORT lidartwinTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS lidartwin RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The configs the CLI's demo and bench name (lidartwin/base/config_root.h finds them here).
install(DIRECTORY configs DESTINATION ${CMAKE_INSTALL_DATADIR}/lidartwin)

set(LT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/lidartwin)
install(EXPORT lidartwinTargets NAMESPACE lidartwin:: DESTINATION ${LT_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/lidartwinConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/lidartwinConfig.cmake INSTALL_DESTINATION ${LT_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/lidartwinConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/lidartwinConfig.cmake
  ${CMAKE_BINARY_DIR}/cmake/lidartwinConfigVersion.cmake DESTINATION ${LT_CMAKE_DIR})
# From <libdir>/pkgconfig back to the prefix (../.. for lib, ../../.. for lib/<multiarch>).
file(RELATIVE_PATH LT_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_SOURCE_DIR}/cmake/lidartwin.pc.in ${CMAKE_BINARY_DIR}/cmake/lidartwin.pc
  @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmake/lidartwin.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
