func f() {
	if x {
		log()
		return 2
	}
}
