"""What both sides read: the value codec (`values`, `flat`), the program-judge channel (`wire`) and the
environment names the client sets (`env`).  Standard library only; the client imports these, nothing here imports
the client."""
