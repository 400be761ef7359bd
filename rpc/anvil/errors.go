package anvil

// paramsError is an error with JSON-RPC code -32602, as anvil answers a
// request it refuses.
type paramsError struct{ msg string }

func (e *paramsError) Error() string  { return e.msg }
func (e *paramsError) ErrorCode() int { return -32602 }

func invalidParams(msg string) error { return &paramsError{msg} }
