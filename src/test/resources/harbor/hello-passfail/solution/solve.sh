#!/bin/bash
echo hello > /app/hello.txt
