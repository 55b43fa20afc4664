target_sources(docshard_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/scheme_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scheme_watcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spillover_manager.cpp
)
