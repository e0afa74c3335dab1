#!/bin/sh
echo two
