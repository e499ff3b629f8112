package types

// and3 is SQL's AND: false wins over NULL, NULL over true.
func and3(a, b any) any {
	if a == false || b == false {
		return false
	}
	if a == nil || b == nil {
		return nil
	}
	return true
}

// or3 is SQL's OR: true wins over NULL, NULL over false.
func or3(a, b any) any {
	if a == true || b == true {
		return true
	}
	if a == nil || b == nil {
		return nil
	}
	return false
}
