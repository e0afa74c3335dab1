a “q”
