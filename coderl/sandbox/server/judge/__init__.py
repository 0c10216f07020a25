"""The judge process: the task's own code and its tests against proxies of the program's objects (`checks`,
`tester`, `handles`).  Standard library only; no candidate code runs here."""
