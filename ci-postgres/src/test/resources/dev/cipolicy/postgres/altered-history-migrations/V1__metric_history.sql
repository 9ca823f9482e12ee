-- A test migration: a version 1 of the metric history schema that is not the shipped one.
CREATE TABLE ${schema}.gate_series (id bigint PRIMARY KEY);
