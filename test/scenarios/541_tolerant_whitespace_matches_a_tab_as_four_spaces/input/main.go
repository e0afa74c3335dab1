func f() {
	if x {
		return 1
	}
}
