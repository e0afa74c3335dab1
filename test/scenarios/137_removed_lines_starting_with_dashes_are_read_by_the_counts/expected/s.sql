select 1;
++ x
select 2;
