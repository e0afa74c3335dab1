describe('app.respond', function(){
  it('should not cause an app error', function(done){
    app.use(function *(next){
      res.write('Hello');
      setTimeout(function(){
        res.end("Goodbye")
      }, 0);
    });

    errorCaught = false;
  })

  it('should send the right body', function(done){
    app.use(function *(next){
      res.write('Hello');
      setTimeout(function(){
        res.end("Goodbye")
      }, 0);
    });

    server = app.listen();
  })
})
