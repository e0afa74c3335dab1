import a from "a"
import bee from "b"
