select 1;
-- comment
select 2;
