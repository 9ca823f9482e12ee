-- A test migration: a version 1 of the queue schema that is not the shipped one, as an edited copy would be.
CREATE TABLE ${schema}.${prefix}requests (id bigint PRIMARY KEY);
