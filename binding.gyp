{
  "targets": [
    {
      "target_name": "free_memory",
      "sources": ["native/free-memory.c"]
    }
  ]
}
