target_sources(docshard_store_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/managed_hash_collections.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scheme_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scheme_watcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spillover_manager.cpp
)
