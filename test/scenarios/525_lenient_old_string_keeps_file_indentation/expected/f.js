function f() {
    if (x) {
        run()
        log()
    }
}
