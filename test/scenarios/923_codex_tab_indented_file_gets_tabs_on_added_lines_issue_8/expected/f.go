package m

func f(x bool) int {
	if x {
		if debug {
			log()
		}
		return 1
	}
	return 0
}
