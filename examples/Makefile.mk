# examples/: small MPI programs a user copies from; built and run by the tests as well.
EXTRA_DIST += examples/hello.c examples/globals.c examples/task_dag.c

