target_sources(docshard_resolvers_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/builtin_resolvers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collection_template.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hash_partition_resolver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lookup_partition_resolver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/managed_hash_partition_resolver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/partition_scheme.cpp
  ${CMAKE_CURRENT_LIST_DIR}/range_partition_resolver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spillover_partition_resolver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transition_partition_resolver.cpp
)
