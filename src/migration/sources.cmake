# Moving documents from one partition scheme to another: plan, migrator
# (copy-then-delete with checkpoints), verification and the final switch.
target_sources(docshard_migration_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/checkpoint_lock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/checkpoint_work_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/document_content.cpp
  ${CMAKE_CURRENT_LIST_DIR}/document_mover.cpp
  ${CMAKE_CURRENT_LIST_DIR}/finish_migration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_fence.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lease_work_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/migration_checkpoint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/migration_lease.cpp
  ${CMAKE_CURRENT_LIST_DIR}/migration_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/migration_read_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/migrator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/move_diagnostics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/request_unit_budget.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scheme_verifier.cpp
  ${CMAKE_CURRENT_LIST_DIR}/token_bucket.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tombstones.cpp
)
