"""The program process's runtime: a function task's program serving the judge (`harness`), a stdin/stdout script
run as CPython runs it (`script`), what it was seen doing to its interpreter (`snapshot`).  Standard library only."""
