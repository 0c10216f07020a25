"""What runs inside the sandbox for a repository task: `boot.py` starts the test process, `reporter.py` is the pytest
plugin that writes each test's outcome on the report channel.  Neither is imported by coderl: both are copied, as
files, into every repository environment (`coderl.tasks.repository.environment`) and run there from /env/coderl,
read-only, under the environment's own pytest."""
