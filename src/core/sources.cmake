target_sources(docshard_core_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/atomic_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collection_ref.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_node.cpp
  ${CMAKE_CURRENT_LIST_DIR}/document_id.cpp
  ${CMAKE_CURRENT_LIST_DIR}/consistent_hash_ring.cpp
  ${CMAKE_CURRENT_LIST_DIR}/full_precision_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hash_generator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/key_type.cpp
  ${CMAKE_CURRENT_LIST_DIR}/logging.cpp
  ${CMAKE_CURRENT_LIST_DIR}/md5_chain.cpp
  ${CMAKE_CURRENT_LIST_DIR}/md5_hash_generator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/murmur3.cpp
  ${CMAKE_CURRENT_LIST_DIR}/operation_diagnostics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/partition_key.cpp
  ${CMAKE_CURRENT_LIST_DIR}/partition_key_path.cpp
  ${CMAKE_CURRENT_LIST_DIR}/partition_resolver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/periodic_worker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/read_selector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resolver_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resolver_target.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ring_ownership.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transition_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/version.cpp
)
if(DOCSHARD_RING_SIMD)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/md5_chain.cpp PROPERTIES COMPILE_DEFINITIONS DOCSHARD_RING_SIMD)
endif()
