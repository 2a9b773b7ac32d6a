/*
 * Gives the allocator's free memory back to the system.
 *
 * glibc's free() returns memory to the system only from the top of an arena. After a burst of
 * work on several threads, megabytes of freed blocks lie between blocks still in use, and the
 * process keeps them. malloc_trim(0) walks every arena and releases the whole free pages found
 * anywhere in them. Elsewhere (musl, macOS) there is no such call, and nothing is done.
 *
 * It also fixes malloc's mmap threshold for a process started without MALLOC_MMAP_THRESHOLD_ in
 * its environment: mallopt(M_MMAP_THRESHOLD) takes the same path in glibc as that variable, and
 * stops the threshold from rising after large blocks are freed.
 */
#include <node_api.h>
#include <stdbool.h>
#if defined(__GLIBC__)
#include <malloc.h>
#define CAN_TRIM true
#else
#define CAN_TRIM false
#endif

/* returnFreeMemory(): whether any memory was given back. */
static napi_value return_free_memory(napi_env env, napi_callback_info info) {
  (void)info;
  bool released = false;
#if defined(__GLIBC__)
  released = malloc_trim(0) == 1;
#endif
  napi_value result;
  napi_get_boolean(env, released, &result);
  return result;
}

/* fixMmapThreshold(bytes): whether the allocator took the threshold. */
static napi_value fix_mmap_threshold(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int64_t bytes = 0;
  bool fixed = false;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc == 1 && napi_get_value_int64(env, argv[0], &bytes) == napi_ok && bytes > 0 && bytes <= 32 * 1024 * 1024) {
#if defined(__GLIBC__)
    fixed = mallopt(M_MMAP_THRESHOLD, (int)bytes) == 1;
#endif
  }
  napi_value result;
  napi_get_boolean(env, fixed, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fix;
  napi_create_function(env, "fixMmapThreshold", NAPI_AUTO_LENGTH, fix_mmap_threshold, NULL, &fix);
  napi_set_named_property(env, exports, "fixMmapThreshold", fix);
  napi_value function;
  napi_value supported;
  napi_create_function(env, "returnFreeMemory", NAPI_AUTO_LENGTH, return_free_memory, NULL, &function);
  napi_get_boolean(env, CAN_TRIM, &supported);
  napi_set_named_property(env, exports, "returnFreeMemory", function);
  napi_set_named_property(env, exports, "supported", supported);
  return exports;
}
