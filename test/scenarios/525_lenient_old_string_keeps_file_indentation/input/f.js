function f() {
    if (x) {
        run()
    }
}
