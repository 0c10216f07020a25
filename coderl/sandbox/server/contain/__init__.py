"""What runs beside a program: isolation levels, cgroups, the view, the host's shared places, Linux calls.  Used by
the server and the zygote, and by each process as it joins its slot.  Standard library only."""
