package m

func f(x bool) int {
	if x {
		return 1
	}
	return 0
}
