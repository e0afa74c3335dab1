fn main() {
    println!("v1");
}
