const a = require("a")
const bee = require("b")
